"""The one pipeline (engine), its planning per settings (units), the rule registry and the worker entry points."""
