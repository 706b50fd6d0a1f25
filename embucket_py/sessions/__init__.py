"""Who asks, in what context: sessions and the token -> session store. Imports no other room."""
