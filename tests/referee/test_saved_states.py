"""Saved states: state_from_json refuses corruptions with a one-line error (each game's
rules, and the history a state carries); apply_action leaves the state as it was
when it fails; the generic checks themselves catch broken games."""

import json

import numpy as np
import pytest

import referee
from models.errors import InputError
from referee import checks
from referee.by_golly_terms import ANIMALS
from referee.match import sample_chance
from tests.referee.positions import position


def played(name, actions=40, seed=3, **params):
    """A state ``actions`` random actions into a game."""
    state = referee.load_game(name, **params).new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(actions):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(
            sample_chance(state, rng)
            if state.is_chance_node()
            else legal[int(rng.integers(len(legal)))]
        )
    return state


def refused(game, data) -> str:
    with pytest.raises(InputError) as caught:
        game.state_from_json(json.dumps(data))
    message = str(caught.value)
    assert "\n" not in message, message
    return message


def by_hand(state) -> dict:
    """The state's JSON as a position set up by hand (no history)."""
    return json.loads(checks.position_json(state))


# --- Go Piggy Go! ----------------------------------------------------------------------------
def go_position(make_game):
    return by_hand(
        position(
            make_game(),
            {"green-1": "r1c1", "gold-1": "r1c1", "gold-2": "r3c0"},
            stacks={"r1c1": ["green-1", "gold-1"]},
            die="tractor",
        )
    )


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d["pieces"].update({"green-2": "r2c2"}),
            "green-2 is on r2c2, but no stack there lists it",
        ),
        (
            lambda d: d["stacks"].update({"r2c2": ["green-2"]}),
            "the stack on r2c2 lists 'green-2', which 'pieces' does not put there",
        ),
        (
            lambda d: (
                d["pieces"].update({"green-2": "r1c1"}) or d["stacks"]["r1c1"].append("green-2")
            ),
            "the stack on r1c1 must list 1 or 2 piggies",
        ),
        (lambda d: d["pieces"].update({"purple-1": "pit"}), "unknown piggy 'purple-1'"),
        (lambda d: d["pieces"].update({"blue-1": "pit"}), "unknown piggy 'blue-1'"),
        (lambda d: d["stacks"].update({"r3c1": ["gold-2"]}), "the stack on r3c1 lists 'gold-2'"),
        (lambda d: d["pieces"].update({"gold-2": "r99c0"}), "gold-2 is on 'r99c0': not a pit"),
        (
            lambda d: (
                d["pieces"].update({"gold-2": "r03c0"})
                or d["stacks"].update({"r03c0": d["stacks"].pop("r3c0")})
            ),
            "gold-2 is on 'r03c0'",
        ),
        (
            lambda d: d["passed_checkpoints"].update({"gold-2": 0}),
            "gold-2 in r3c0 with 0 checkpoints",
        ),
        (lambda d: d.update(player=5), "field 'player' must be a whole number 0-1, got 5"),
        (lambda d: d.update(die="9"), "field 'die' must be one of 1, 2, 3, 4, 5, tractor"),
        (lambda d: d.update(phase="shot", target="green-2"), "target 'green-2' in phase shot"),
        (lambda d: d.update(winner=0), "phase move, winner 0"),
        (
            lambda d: d.update(phase="over", capped=True, turn=d["params"]["max_turns"]),
            "die 'tractor' in a game capped after",
        ),
        (lambda d: all_in_the_trough(d, "gold"), "winner null with seats [1] in the trough"),
        (  # gold's last piggy went in on green's move, which took none of green's there
            lambda d: all_in_the_trough(d, "gold") or d.update(winner=1, phase="over"),
            "winner 1 after seat 0's move with die 'tractor'",
        ),
    ],
)
def test_go_piggy_go_refuses_corrupted_positions(make_game, change, expected):
    data = go_position(make_game)
    make_game().state_from_json(json.dumps(data))  # as saved, it loads
    change(data)
    assert expected in refused(make_game(), data)


def all_in_the_trough(data: dict, colour: str) -> None:
    """Every piggy of a colour in the trough, past both checkpoints."""
    for piggy in [p for p in data["pieces"] if p.startswith(colour)]:
        data["pieces"][piggy] = "trough"
        data["passed_checkpoints"][piggy] = 2
        for stack in data["stacks"].values():
            if piggy in stack:
                stack.remove(piggy)
    data["stacks"] = {space: stack for space, stack in data["stacks"].items() if stack}


@pytest.mark.parametrize(
    "change",
    [
        # the same move by gold took gold's last piggy in: gold won
        lambda d: all_in_the_trough(d, "gold") or d.update(winner=1, player=1, phase="over"),
    ],
    ids=["won-by-the-mover"],
)
def test_go_piggy_go_positions_next_to_those_refused_load(make_game, change):
    """What the refusals above must not catch: positions a game reaches."""
    data = go_position(make_game)
    change(data)
    make_game().state_from_json(json.dumps(data))


@pytest.mark.parametrize(("faces", "fewest"), [("1,2,tractor", 2), ("1,2,3,4,5,tractor", 0)])
def test_a_piggy_in_the_trough_has_passed_what_the_longest_move_in_leaves_behind(
    make_game, faces, fewest
):
    """A piggy's count is not raised on its way in, so the trough holds what the place
    the die's longest move reaches it from had: on the 6-row test board, moves of 2 go
    in from row 5 only (both checkpoints behind it), a move of 5 from the start pit."""
    game = make_game(die_faces=faces)
    data = go_position(lambda: game)
    data["pieces"]["green-2"] = "trough"
    for passed in range(3):
        data["passed_checkpoints"]["green-2"] = passed
        if passed < fewest:
            assert f"green-2 in trough with {passed} checkpoints passed" in refused(game, data)
        else:
            game.state_from_json(json.dumps(data))


# --- Pig-Out --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.update(player=5), "field 'player' must be a whole number 0-1, got 5"),
        (
            lambda d: d.update(scores=[-5, 0]),
            "field 'scores' must be a list of 2-2 items, each a whole number",
        ),
        (lambda d: d.update(scores=[0, 0, 0]), "field 'scores' must be a list of 2-2 items"),
        (lambda d: d.update(scores=[450, 0]), "scores [450, 0] reach the target 400"),
        (lambda d: d.update(phase="decide", turn_total=0), "phase decide before any roll"),
        (lambda d: d.update(phase="roll", turn_total=3), "a turn total of 3 in phase roll"),
        (lambda d: d.update(phase="card", spots=0), "spots 0 in phase card"),
        (lambda d: d["deck"].update(A=5), "'deck.A' must be a whole number 0-4, got 5"),
        (lambda d: d.update(rollers=[0, 1], rolloff=[7]), "a roll for the first player after play"),
        (lambda d: d.update(turn=3, capped=True), "capped True and turn 3 of 100000 do not go"),
    ],
)
def test_pig_out_refuses_corrupted_positions(change, expected):
    game = referee.load_game("pig_out")
    data = by_hand(played("pig_out", actions=30, seed=1))
    data.update(phase="roll", turn_total=0, spots=0, winner=None, capped=False)
    game.state_from_json(json.dumps(data))
    change(data)
    assert expected in refused(game, data)


# --- Woolfy ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d["piglets"].update(red=99), "'piglets.red' must be a square 0-23, a house"),
        (
            lambda d: d["piglets"].update(red="straw", yellow="straw"),
            "red, yellow in the straw house, which holds 1",
        ),
        (
            lambda d: d["piglets"].update(red="stick", yellow="stick", blue="stick"),
            "in the stick house, which holds 2",
        ),
        (
            lambda d: d["piglets"].update(red="brick"),
            "red in the brick house, which holds 3 once built",
        ),
        (lambda d: d.update(wolf=13), "field 'wolf' must be a wolf square"),
        (lambda d: d.update(brick_parts=5), "field 'brick_parts' must be a whole number 0-4"),
        (lambda d: d.update(phase="move", chosen="red", rolled="house"), "phase move with piglet"),
        (lambda d: d.update(phase="die", chosen="red", rescuing=True), "(rescuing True)"),
        (lambda d: d.update(phase="over", result="won"), "result 'won'"),
        (lambda d: d["piglets"].update(red="pot", yellow="pot", blue="pot"), "result null"),
        # a rescue only once a piglet is chosen: none in phase choose, armed or not
        (lambda d: d.update(rescuing=True), "phase choose with piglet null (rescuing True)"),
        (
            lambda d: d["piglets"].update(red="pot") or d.update(rescue_armed=True, rescuing=True),
            "phase choose with piglet null (rescuing True)",
        ),
        (
            lambda d: d.update(last_die="red", phase="die", chosen="red"),
            "red chosen in phase die, the piglet rolled last turn: ruling 6 allows that only "
            "when the other two are in the pot or in houses (same_piglet_exception sheet)",
        ),
        (
            lambda d: (
                d["piglets"].update(red="pot", yellow="pot")
                or d.update(last_die="red", phase="die", chosen="red", rescuing=True)
            ),
            "ruling 6 allows that on a rescue only with no other in the pot (yellow)",
        ),
    ],
)
def test_woolfy_refuses_corrupted_positions(change, expected):
    game = referee.load_game("woolfy")
    data = by_hand(game.new_initial_state())
    data["piglets"].update(red=3, yellow=12, blue="stick")
    data["left_start"] = ["red", "yellow", "blue"]
    game.state_from_json(json.dumps(data))
    change(data)
    assert expected in refused(game, data)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(last_die="red", phase="die", chosen="yellow"),
        lambda d: (
            d["piglets"].update(yellow="pot", blue="pot")
            or d.update(last_die="red", phase="die", chosen="red")
        ),
        lambda d: (
            d["piglets"].update(red="pot")
            or d.update(last_die="red", phase="die", chosen="red", rescuing=True)
        ),
    ],
    ids=["another-piglet", "the-others-potted", "the-only-one-potted"],
)
def test_woolfy_positions_next_to_those_refused_load(change):
    """Ruling 6's own exceptions, which the refusals above must not catch."""
    game = referee.load_game("woolfy")
    data = by_hand(game.new_initial_state())
    data["piglets"].update(red=3, yellow=12, blue="stick")
    data["left_start"] = ["red", "yellow", "blue"]
    change(data)
    game.state_from_json(json.dumps(data))


# --- By Golly! ------------------------------------------------------------------------------
def golly_position():
    state = played("by_golly", actions=200, seed=2)
    assert state.observation(0)["phase"] in ("play", "turn")
    return state.game, by_hand(state)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d["hands"][0].extend(["fox"] * 4), "fox cards in play: there are 3 of each"),
        (lambda d: d["hands"][1].append("unicorn"), "field 'hands' must be a list of 2-2 items"),
        (lambda d: d.update(run=d["run"][:5]), "a chicken run of 5 cards in phase"),
        (
            lambda d: d["run"].__setitem__(d["run"].index("shovel"), "poop"),
            "the chicken run holds 1 card(s) too many of poop",
        ),
        (lambda d: d["stacks"][1].extend(["bunny"] * 4), "bunny cards in play"),
        (lambda d: d.update(turn=d["turn"] + 1), "turns ended in the log, but 'turn' is"),
        (
            lambda d: d.update(face_up=[*d["face_up"], 18 if 18 not in d["face_up"] else 17]),
            "do not match those the log shows",
        ),
        (lambda d: d.update(phase="draw"), "phase draw does not go with"),
        (lambda d: d["events"].append(["reveal", 19, "fox"]), "field 'events' must be a list of"),
        (lambda d: d["hands"].__setitem__(1 - d["player"], []), "holds no card, yet has not won"),
    ],
)
def test_by_golly_refuses_corrupted_positions(change, expected):
    game, data = golly_position()
    game.state_from_json(json.dumps(data))
    change(data)
    assert expected in refused(game, data)


def test_by_golly_refuses_cards_beyond_those_dealt():
    game, data = golly_position()
    dealt = 2 * 15
    hands = [["bunny", "butterfly", "caterpillar"], ["chick", "drake", "fox"]]
    stacks = [[a for a in ANIMALS for _ in range(2)][: dealt - 5], []]
    data.update(hands=hands, stacks=stacks, played=None, phase="play", face_up=[])
    assert "animal cards in play, but 30 were dealt" in refused(game, data)


# --- the history --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(referee.GAMES))
def test_a_saved_state_must_be_what_its_history_reaches(name):
    state = played(name, actions=60)
    data = json.loads(state.to_json())
    assert state.game.state_from_json(state.to_json()).to_json() == state.to_json()
    data["turn"] += 1  # (By Golly! counts the turns in its log, too)
    assert "'turn'" in refused(state.game, data)
    data["turn"] -= 1
    data["player"] = (data["player"] + 1) % state.game.num_players
    assert "field 'player'" in refused(state.game, data)
    data["player"] = json.loads(state.to_json())["player"]
    data["history"][len(data["history"]) // 2] = "fly away"
    assert "history action" in refused(state.game, data)
    data["history"] = "die 3"
    assert "field 'history' must be a list of action strings" in refused(state.game, data)


@pytest.mark.parametrize("name", sorted(referee.GAMES))
def test_a_state_saved_with_other_parameters_is_refused(name):
    state = played(name, actions=10)
    other = referee.load_game(name, max_turns=77)
    assert "saved with max_turns=" in refused(other, json.loads(state.to_json()))


@pytest.mark.parametrize(
    "text", ["", "[", "[]", '{"game": "chess"}', "9" * 5000, "[" * 100_000, '{"game": "pig_out"}']
)
def test_text_that_is_no_state_is_refused(text):
    with pytest.raises(InputError) as caught:
        referee.load_game("pig_out").state_from_json(text)
    assert "\n" not in str(caught.value)


# --- apply_action is atomic ---------------------------------------------------------------------
#: A method each game calls in the middle of applying a turn's last action.
MIDWAY = {
    "go_piggy_go": "_next_turn",
    "pig_out": "_end_turn",
    "woolfy": "_end_turn",
    "by_golly": "_end_turn",
}


@pytest.mark.parametrize("name", sorted(referee.GAMES))
def test_an_action_that_fails_halfway_changes_nothing(name, monkeypatch):
    """A failure in the middle of an action (an interrupt, a full disk, a bug met once)
    leaves the state as it was, and the game plays on."""
    state = played(name, actions=25)
    method = getattr(type(state), MIDWAY[name])
    calls = []

    def fail_once(self, *args, **kwargs):
        if not calls:
            calls.append(1)
            raise RuntimeError("interrupted")
        return method(self, *args, **kwargs)

    monkeypatch.setattr(type(state), MIDWAY[name], fail_once)
    while not calls:  # play on until an action meets the failure
        action = (
            state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0]
        )
        before = state.to_json()
        try:
            state.apply_action(action)
        except RuntimeError:
            break
    assert state.to_json() == before
    state.apply_action(action)  # and it still plays
    assert json.loads(state.to_json())["history"][-1] == action


def test_pig_out_max_turns_broken_after_loading_leaves_the_state_as_it_was():
    """The case the hardening pass found: a turn cap that is no number, met halfway
    through apply_action (now refused at load; here forced in afterwards)."""
    game = referee.load_game("pig_out", preset="pig")
    state = game.new_initial_state()
    game.params["max_turns"] = "x"
    before = state.to_json()
    with pytest.raises(TypeError):
        state.apply_action("dice 1")  # a pig: the turn ends and meets the cap
    assert state.to_json() == before and state.history == []


def test_a_position_set_up_by_hand_plays_on_and_restores_after_a_failure(monkeypatch):
    game = referee.load_game("woolfy")
    data = by_hand(game.new_initial_state())
    data["piglets"].update(red=3, yellow=12, blue="stick")
    data["left_start"] = ["red", "yellow", "blue"]
    state = game.state_from_json(json.dumps(data))
    state.apply_action("roll red")
    state.apply_action("die 2")
    before = state.to_json()
    end_turn = type(state)._end_turn
    monkeypatch.setattr(type(state), "_end_turn", lambda self: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        state.apply_action("move red 5")
    assert state.to_json() == before
    monkeypatch.setattr(type(state), "_end_turn", end_turn)
    state.apply_action("move red 5")
    assert state.observation(0)["piglets"]["red"] == 5


# --- the generic checks catch broken games ------------------------------------------------------
def test_check_state_catches_legal_actions_out_of_order(monkeypatch):
    state = played("woolfy", actions=4)
    checks.check_state(state)
    sorted_actions = type(state)._legal_actions
    monkeypatch.setattr(type(state), "_legal_actions", lambda self: sorted_actions(self)[::-1])
    state._legal_for = -1
    if len(state.legal_actions()) > 1:
        with pytest.raises(AssertionError, match="legal actions not sorted"):
            checks.check_state(state)


@pytest.mark.parametrize("name", sorted(referee.GAMES))
def test_check_corruptions_catches_a_loader_that_trusts_its_input(name, monkeypatch):
    state = played(name, actions=30)
    checks.check_corruptions_refused(state)
    cls = type(state)

    def trusting_load(self, data):  # the old way: take the fields as they come
        for key, value in data.items():
            if key not in ("game", "params", "history"):
                setattr(self, key, value)

    monkeypatch.setattr(cls, "_load", trusting_load)
    with pytest.raises(AssertionError, match="was accepted"):
        checks.check_corruptions_refused(state)


#: The random legal states read back per game, and the settings they are played under:
#: short caps, so that capped ends are among them, and more seats.
READ_BACK_STATES = 5_000
READ_BACK_SETTINGS = {
    "go_piggy_go": ({"max_turns": 30}, {"players": 4}),
    "pig_out": ({"max_turns": 30}, {"players": 3}),
    "woolfy": ({"max_turns": 30}, {}),
    "by_golly": ({"max_turns": 12}, {"players": 4, "max_turns": 60}),
}


def random_states(name: str, count: int, seed: int, **params):
    """``count`` states random play passes through (games played one after another),
    each as soon as it is reached."""
    game = referee.load_game(name, **params)
    rng, state = np.random.default_rng(seed), game.new_initial_state()
    for _ in range(count):
        if state.is_terminal():
            state = game.new_initial_state()
        legal = state.legal_actions()
        state.apply_action(
            sample_chance(state, rng)
            if state.is_chance_node()
            else legal[int(rng.integers(len(legal)))]
        )
        yield state


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(READ_BACK_SETTINGS))
def test_five_thousand_random_legal_states_are_read_back_as_they_are(name):
    settings = READ_BACK_SETTINGS[name]
    ends = set()
    for seed, params in enumerate(settings):
        for state in random_states(name, READ_BACK_STATES // len(settings), seed, **params):
            game, data = state.game, json.loads(state.to_json())
            # with its history (replayed) and as a position alone, the same state
            assert json.loads(game.state_from_json(state.to_json()).to_json()) == data
            position = game.state_from_json(checks.position_json(state))
            assert json.loads(position.to_json()) == {**data, "history": []}
            ends.add(
                (data.get("capped"), data.get("winner") is not None)
                if state.is_terminal()
                else None
            )
    assert {None, (True, False)} <= ends  # games under way and capped ends among them
