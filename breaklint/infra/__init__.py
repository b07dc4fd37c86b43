"""Process plumbing: files, the cache, the worker pool, recursion room, lazy imports and libcst traversal."""
