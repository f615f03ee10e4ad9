import DocbmCLI
