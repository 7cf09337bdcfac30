"""The agents package re-exports the one set of player protocols of carcassonne_env.players."""

import agents
import carcassonne_env.players as players


def test_agents_reexports_the_package_protocols() -> None:
    for name in ("Policy", "EngineAgent", "PolicyAgent", "RandomAgent", "as_engine_agent"):
        assert getattr(agents, name) is getattr(players, name)
