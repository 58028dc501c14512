"""The verbs, one module a group; each verb is a function that adds its parser and names its handler."""
