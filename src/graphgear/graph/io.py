def load(*a, **k): raise NotImplementedError
def save(*a, **k): raise NotImplementedError
