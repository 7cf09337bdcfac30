"""Policy distillation: a board network that plays without search, trained to imitate a search
teacher with DAgger rounds (:mod:`training.distill.policy_distillation`, ``carcassonne train distill``)."""
