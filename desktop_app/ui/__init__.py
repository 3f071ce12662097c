"""The Qt shell: widgets, item models and one task runner. The only package that imports PySide6."""
