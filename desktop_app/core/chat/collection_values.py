"""The values a whole-library answer adds up, read from a document's text by fixed rules (never by the model).

An amount is a number written with a currency beside it: a symbol (€ $ £ ¥ before or after) or an ISO code (EUR,
USD, GBP, CHF, … before or after). Both number styles are read: `1,234.50` and `1.234,50` (the last separator
followed by exactly two digits is the decimal one); a bare number without a currency is not an amount, so dates,
invoice numbers and quantities are never added up (`3 EUR 120.00`, a quantity then a price, is EUR 120.00).

A document's amount is the one its text labels as the total (`Total`, `Total due`, `Amount due`, `Balance due`,
`Grand total`; the last such line, as a total comes after its subtotal), else its only amount, else none: a
document with several unlabelled amounts has no single amount to add, and the answer says so instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import regex

SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY"}
CODES = ("EUR", "USD", "GBP", "CHF", "JPY", "CAD", "AUD", "SEK", "NOK", "DKK", "PLN", "CZK", "INR", "CNY")
_NUMBER = r"\d{1,3}(?:[,.\u00a0 ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_CUR = r"[€$£¥]|\b(?:" + "|".join(CODES) + r")\b"
_AMOUNT = regex.compile(
    rf"(?P<cur1>{_CUR})\s?(?P<num1>{_NUMBER})(?!\d)|(?<![\d.,])(?P<num2>{_NUMBER})\s?(?P<cur2>{_CUR})(?!\s?\d)")
_TOTAL_LINE = regex.compile(r"(?i)(?<!sub[- ]?)\b(?:grand\s+)?total\b|\b(?:amount|balance)\s+due\b")


@dataclass(frozen=True)
class Amount:
    """A sum of money as written: its value, its ISO currency, and the line of text it was read from."""

    value: Decimal
    currency: str
    line: str = ""

    def shown(self) -> str:
        """`EUR 1,234.50`: the code and the value with thousands and two decimals."""
        return money(self.value, self.currency)


def money(value: Decimal, currency: str) -> str:
    """`EUR 1,234.50` (a value without currency: just the number)."""
    number = f"{value:,.2f}"
    return f"{currency} {number}" if currency else number


def amounts_in(line: str) -> list[Amount]:
    """Every amount with a currency in one line of text, in order."""
    out: list[Amount] = []
    for m in _AMOUNT.finditer(line):
        cur = m.group("cur1") or m.group("cur2")
        value = parse_number(m.group("num1") or m.group("num2"))
        if value is not None:
            out.append(Amount(value, SYMBOLS.get(cur, cur.upper()), line.strip()))
    return out


def parse_number(text: str) -> Decimal | None:
    """`1,234.50`, `1.234,50`, `1 234,50`, `980`, `12.5` as a Decimal (None when it is not a number)."""
    digits = text.replace("\u00a0", " ").replace(" ", "")
    last = max(digits.rfind(","), digits.rfind("."))
    if last >= 0 and len(digits) - last - 1 in (1, 2):  # the decimal separator: one or two digits follow it
        whole, frac = digits[:last], digits[last + 1 :]
    else:
        whole, frac = digits, ""
    whole = whole.replace(",", "").replace(".", "")
    try:
        return Decimal(f"{whole or '0'}.{frac or '0'}")
    except InvalidOperation:
        return None


def document_amount(text: str) -> Amount | None:
    """The document's total: the last amount on a line labelled as a total, else its only amount, else None."""
    labelled: Amount | None = None
    found: list[Amount] = []
    for line in text.splitlines():
        here = amounts_in(line)
        found += here
        if here and _TOTAL_LINE.search(line):
            labelled = here[-1]
    if labelled is not None:
        return labelled
    return found[0] if len(found) == 1 else None


def totals(amounts: list[Amount]) -> dict[str, Decimal]:
    """The sum per currency, currencies in order of first appearance (never added across currencies)."""
    out: dict[str, Decimal] = {}
    for a in amounts:
        out[a.currency] = out.get(a.currency, Decimal("0")) + a.value
    return out
