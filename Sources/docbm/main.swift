import DocbmCLI
import Glibc

exit(DocbmCommandLine.run(arguments: DocbmCommandLine.processArguments))
