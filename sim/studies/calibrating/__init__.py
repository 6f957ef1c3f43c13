"""Which launcher matches the real toy? Shots measured on the toy (a CSV), a design
fitted to them by maximum likelihood, its checks, its report and its file, and such a
CSV made by the sandbox itself."""
