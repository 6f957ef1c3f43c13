"""One space's shots: what a sweep measures (its settings), a space's seeds or RQMC
points, its target, aim and shots fired, what each shot did (knocked, stayed, blocked,
missed), the typed records they make and the data files that keep them with what made
them. Every other room stands on this one."""
