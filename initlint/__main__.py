from initlint.cli import run

run()
