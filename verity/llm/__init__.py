"""Everything that talks to a model: prompts, the claim schema, repair and the narrators."""
