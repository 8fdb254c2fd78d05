"""The embedded name server: broker registration, routes, KV config."""
