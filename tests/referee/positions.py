"""Setting up Go Piggy Go! positions for rules tests."""

import json


def position(game, pieces=None, die=None, player=0, passed=None, stacks=None, phase=None):
    """A state with piggies where ``pieces`` says (others in the start pit), through
    the public JSON loader. ``stacks`` lists spaces' stacks bottom first where two
    piggies share a space; lone piggies are stacked automatically. Each piggy has
    passed at least the checkpoints behind where it stands (``passed`` may say more)."""
    state = game.new_initial_state()
    data = json.loads(state.to_json())
    pieces = pieces or {}
    data["pieces"].update(pieces)
    stack_map = {space: list(pigs) for space, pigs in (stacks or {}).items()}
    in_stacks = {p for pigs in stack_map.values() for p in pigs}
    for piggy, where in pieces.items():
        if where.startswith("r") and piggy not in in_stacks:
            stack_map.setdefault(where, []).append(piggy)
    data["stacks"] = stack_map
    data["passed_checkpoints"].update(passed or {})
    for piggy, where in data["pieces"].items():  # at least the checkpoints behind it
        least = (
            {"pit-right": 1, "pit-left": 2}.get(where, 0)
            if not where.startswith("r")
            else game.board.checkpoints_passed(game.board.parse_space(where))
        )
        data["passed_checkpoints"][piggy] = max(data["passed_checkpoints"][piggy], least)
    data["die"] = die
    data["player"] = player
    data["phase"] = phase or ("move" if die else "roll")
    return game.state_from_json(json.dumps(data))


def destinations(state, piggy):
    """Where a piggy may move now (space names and 'trough')."""
    return {a.split()[2] for a in state.legal_actions() if a.startswith(f"move {piggy} ")}
