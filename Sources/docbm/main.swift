import DocbmCLI

DocbmCommandLine.main()
