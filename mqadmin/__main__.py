from mqadmin.cli import run

run()
