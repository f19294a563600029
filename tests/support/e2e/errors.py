"""What the pretend cluster raises: the rendered objects ask for something it does not model,
or a command it runs on the machine or in a pod failed."""


class Unsupported(Exception):
    """The rendered objects ask for something this pretend cluster does not model."""


class CommandFailed(Exception):
    pass
