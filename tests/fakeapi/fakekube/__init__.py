"""A fake Kubernetes API server for windowctl's tests (see ../fakeapi.py for the entry point)."""
