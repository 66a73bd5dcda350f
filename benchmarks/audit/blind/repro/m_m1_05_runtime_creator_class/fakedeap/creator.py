# minimal stand-in for deap.creator.create: builds a class at run time and binds it as a
# global of this module (deap installs it with globals()[name] = type(name, (base,), dict))
def create(name, base, **kw):
    globals()[name] = type(name, (base,), dict(kw))
