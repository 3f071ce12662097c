"""Chat model backends: the ChatRuntime protocol and what backends share (base.py), llama.cpp in process
(llama.py), an OpenAI-compatible server (openai_backend.py), and the chat-template markers a passage must not
carry into a prompt (template_tokens.py)."""
