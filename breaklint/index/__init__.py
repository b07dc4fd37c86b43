"""The one index: each file's facts from the stdlib ast (builder), cached by content, served as the project index."""
