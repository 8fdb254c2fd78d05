"""Fleet export: collecting metadata from many clusters into a versioned, gzipped JSON-lines directory."""
