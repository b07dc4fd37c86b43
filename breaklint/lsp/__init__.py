"""The language server (pygls) and the workspace it keeps warm, on the check pipeline."""
