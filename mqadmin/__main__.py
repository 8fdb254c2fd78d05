from mqadmin.cli.main import run

run()
