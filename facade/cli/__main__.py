from facade.cli.main import main

main()
