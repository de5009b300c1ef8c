def accept_all(completion, reference):
    return True
