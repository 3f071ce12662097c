"""Answering one question: plan the prompt within its budget, pick the quote, decide whether to abstain, ask the
model, then check and cite what it wrote and decide what is shown. ChatService (core/chat/service.py) runs these
steps in order; each module here is one of them or a pure helper of one."""
