import toolscout


def test_all_public_names_are_exported_and_sorted():
    public = [name for name in vars(toolscout) if not name.startswith("_") or name == "__version__"]
    modules = {name for name in public if type(getattr(toolscout, name)).__name__ == "module"}
    assert toolscout.__all__ == sorted(set(public) - modules, key=str.casefold)
