"""How the Python interop clients write what they received: the JSON the server sent."""


def plain(value):
    """A pydantic model (or a structure of them) as the JSON the server sent: only the fields
    that were set, by their wire names, with integral floats as integers (as JavaScript has
    them)."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
