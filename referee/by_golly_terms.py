"""By Golly!'s terms, shared by the game (referee.by_golly) and the reading of a
saved state (referee.by_golly_load): the cards (ruling 1: the chicken run's 19,
three of each animal to deal), how many each player is dealt, the hand, the
penalties, and the phases of a turn as a saved state names them
(docs/rules/by-golly.md).
"""

from __future__ import annotations

from collections import Counter

ANIMALS = (
    "bunny",
    "butterfly",
    "caterpillar",
    "chick",
    "drake",
    "fox",
    "goose",
    "hedgehog",
    "hen",
    "marten",
    "mouse",
    "raven",
    "rooster",
    "snail",
    "worm",
)
POOP, SHOVEL = "poop", "shovel"
RUN_CARDS = Counter({**dict.fromkeys(ANIMALS, 1), POOP: 2, SHOVEL: 2})  # ruling 1
ANIMAL_CARDS = Counter(dict.fromkeys(ANIMALS, 3))
DEAL = {2: 15, 3: 15, 4: 11, 5: 9, 6: 7}  # cards dealt to each player, by player count
HAND = 5
PENALTY = {"animal": 2, POOP: 4}  # cards drawn after poop then an animal / poop

RUN_SIZE = sum(RUN_CARDS.values())

SETUP_RUN, SETUP_DEAL, SETUP_START = "run", "deal", "start"
PLAY, TURN, POOP_TURN, DRAW, SWAP, OVER = "play", "turn", "poop-turn", "draw", "swap", "over"
LUCKY = "lucky"
SETUP_PHASES = (SETUP_RUN, SETUP_DEAL, SETUP_START)
PHASES = (*SETUP_PHASES, PLAY, TURN, LUCKY, POOP_TURN, DRAW, SWAP, OVER)
