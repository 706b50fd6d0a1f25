"""Planning and executing statements on DataFusion (synchronous; the server runs it off the loop)."""
