from mqadmin.cli import console

console()
