"""Is design B better than design A? Designs fired with the same shots and compared pair
by pair under a rule (the board mean, or space by space), the verdict and its words, in
one engine or several, the cache of their hit maps, the shareable report, and what a
design does to the game."""
