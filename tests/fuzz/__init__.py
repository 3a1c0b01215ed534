"""Generated broken and random submissions for the toy exercise, and an oracle for what each earns."""
