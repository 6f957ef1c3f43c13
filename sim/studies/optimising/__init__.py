"""Which design is best? A search over design fields with Optuna (piggy design
optimise): its settings and storage, each trial measured cheaply and raced, the best
measured again and verified against BASE on new shots."""
