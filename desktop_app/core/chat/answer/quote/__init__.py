"""The quote: the unit of the passages sent that answers the question, verbatim — its candidates and selectors, the
units it is cut from in every script, the kind of answer a question asks for."""
