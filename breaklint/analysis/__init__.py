"""What the index and region code imply: compiled regions, values, call arguments and returns, model-config defaults."""
