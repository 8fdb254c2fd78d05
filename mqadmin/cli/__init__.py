"""The ``mqadmin`` command line: a thin Typer layer over the admin client and the servers."""
