"""Woolfy's terms, shared by the game (referee.woolfy) and the reading of a saved
state (referee.woolfy_load): the piglets, the houses, the pot, the die's faces, the
longest track, and the phases of a turn as a saved state names them
(docs/rules/woolfy.md).
"""

PIGLETS = ("red", "yellow", "blue")
HOUSES = ("straw", "stick", "brick")
POT = "pot"
DIE_FACES = ("1", "2", "3", "4", "5", "6", "wolf", "house")
MAX_TRACK = 200
#: The phases of a turn: choose a piglet, roll its die, move it, take a house or not; over.
CHOOSE, DIE, MOVE, HOUSE, OVER = "choose", "die", "move", "house", "over"
