from mitra.cli.main import main

main()
