from initlint.cli import main

main()
