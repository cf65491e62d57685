"""The conversation: the session state machine new -> choosing -> locked."""
