from mitra.cli import main

main()
