"""Training: Stable-Baselines3 MaskablePPO self-play, evaluation and tournaments (needs the
``train`` extra). The single-agent view it trains on is ``carcassonne_env.environment.single_agent``."""
