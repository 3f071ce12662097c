"""A made-up company's files for whole-library questions: invoices (.txt, .md, .eml), meeting notes (.md with
#tags), mails (.eml) and reports, written deterministically from a seed, with questions whose exact answers are
computed from the generator's own records (never from Trove).

What a document is, for the answers: an invoice is a file whose title or name says so (an e-mail whose subject is
"Invoice …" is an invoice and a mail); "from Acme" is a document that mentions Acme; its date is the one it states.
Meeting notes and mails mention vendors and amounts too, so a count or total that reads every document that
mentions a vendor, or every amount, is wrong. Used by tests/integration/chat/test_collection.py (a small library)
and bench/collection.py (the 200-document library).
"""

from __future__ import annotations

import datetime as dt
import email.utils
import os
import random
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

VENDORS = {"Acme": "EUR", "Northwind": "USD", "Globex": "GBP", "Initech": "EUR", "Umbrella": "USD",
           "Contoso": "EUR"}
TAGS = ("budget", "launch", "hiring", "ops", "travel")
ITEMS = ("Consulting hours", "Licence renewal", "Support plan", "Hardware", "Training day", "Shipping",
         "Cloud hosting", "Office supplies")
TOPICS = ("Budget review", "Launch plan", "Hiring sync", "Ops weekly", "Travel policy", "Roadmap", "Retro")
MAIL_SUBJECTS = ("Delivery schedule", "Re: contract renewal", "Meeting next week", "Quote for the new order",
                 "Holiday closure", "Re: support ticket")
START, END = dt.date(2025, 1, 1), dt.date(2026, 11, 30)
_SYMBOL = {"EUR": "€", "USD": "$", "GBP": "£"}


@dataclass
class Record:
    """One generated document and the facts its answers are computed from."""

    path: str  # relative to the library folder
    kinds: set[str]
    date: dt.date
    mentions: set[str] = field(default_factory=set)  # vendors named in its text
    tags: set[str] = field(default_factory=set)
    amount: Decimal | None = None  # an invoice's total
    currency: str = ""
    text: str = ""


@dataclass(frozen=True)
class Question:
    """A whole-library question and its exact answer."""

    text: str
    operation: str  # count | list | total
    paths: tuple[str, ...]  # the documents that answer it, relative paths, sorted
    totals: dict[str, Decimal] = field(default_factory=dict)


def _amount(value: Decimal, currency: str, style: int) -> str:
    if style == 0:
        return f"{currency} {value:,.2f}"
    if style == 1:
        return f"{_SYMBOL[currency]}{value:,.2f}"
    european = f"{value:,.2f}".replace(",", " ").replace(".", ",").replace(" ", ".")
    return f"{european} {_SYMBOL[currency]}" if currency == "EUR" else f"{value:,.2f} {currency}"


def _day(rng: random.Random) -> dt.date:
    return START + dt.timedelta(days=rng.randrange((END - START).days + 1))


def _invoice(rng: random.Random, n: int) -> Record:
    vendor = rng.choice(sorted(VENDORS))
    cur, day, number = VENDORS[vendor], _day(rng), f"INV-{26000 + n}"
    style = rng.randrange(3)
    items = [(rng.choice(ITEMS), rng.randint(1, 9), Decimal(rng.randint(20, 900)) + Decimal(rng.randrange(0, 100, 5))
              / 100) for _ in range(rng.randint(1, 4))]
    subtotal = sum((q * p for _, q, p in items), Decimal("0"))
    vat = (subtotal * Decimal("0.2")).quantize(Decimal("0.01"))
    total = subtotal + vat
    lines = [f"{name:<20} {q:>3}   {_amount(p, cur, style)}" for name, q, p in items]
    fmt = n % 4
    if fmt in (0, 1):  # plain text
        label = ("Total due", "TOTAL", "Amount due", "Grand total")[n // 4 % 4]
        text = (f"INVOICE {number}\n\nInvoice date: {day.isoformat()}\nFrom: {vendor} Ltd, 12 Harbour Road\n"
                f"Bill to: Trove Test Ltd\nDue date: {(day + dt.timedelta(days=30)).isoformat()}\n\n"
                + "\n".join(lines) + f"\n\nSubtotal: {_amount(subtotal, cur, style)}"
                f"\nVAT 20%: {_amount(vat, cur, style)}\n{label}: {_amount(total, cur, style)}\n\n"
                "Thank you for your business.\n")
        path = f"invoices/invoice-{vendor.lower()}-{number}.txt"
        return Record(path, {"invoice"}, day, {vendor}, set(), total, cur, text)
    if fmt == 2:  # Markdown with front matter
        rows = "\n".join(f"| {name} | {q} | {_amount(p, cur, style)} |" for name, q, p in items)
        text = (f"---\ntitle: Invoice {number} from {vendor}\ndate: {day.isoformat()}\n---\n\n# Invoice {number}\n\n"
                f"Vendor: {vendor} Inc.\n\n| Item | Qty | Price |\n|---|---|---|\n{rows}\n\n"
                f"Subtotal: {_amount(subtotal, cur, style)}  \nVAT: {_amount(vat, cur, style)}  \n"
                f"**Total:** {_amount(total, cur, style)}\n")
        path = f"invoices/{day.isoformat()}-{vendor.lower()}-{number}.md"
        return Record(path, {"invoice"}, day, {vendor}, set(), total, cur, text)
    body = (f"Hello,\n\nplease find below our invoice {number} for the work of {day.strftime('%B %Y')}.\n\n"
            + "\n".join(lines) + f"\n\nAmount due: {_amount(total, cur, style)} within 30 days.\n\n"
            f"Kind regards,\n{vendor} accounts\n")
    text = _eml(f"billing@{vendor.lower()}.example", f"Invoice {number} from {vendor}", day, body)
    path = f"mail/invoice-{vendor.lower()}-{number}.eml"
    return Record(path, {"invoice", "mail"}, day, {vendor}, set(), total, cur, text)


def _eml(sender: str, subject: str, day: dt.date, body: str) -> str:
    when = email.utils.format_datetime(dt.datetime(day.year, day.month, day.day, 9, 30, tzinfo=dt.UTC))
    return (f"From: {sender}\nTo: office@trove-test.example\nSubject: {subject}\nDate: {when}\n"
            f"Content-Type: text/plain; charset=utf-8\n\n{body}")


def _meeting(rng: random.Random, n: int) -> Record:
    day, topic = _day(rng), rng.choice(TOPICS)
    tags = set(rng.sample(TAGS, rng.randint(1, 2)))
    vendor = rng.choice(sorted(VENDORS))
    mention = n % 3 == 0  # a third discuss a vendor's bill: not an invoice, and its amount is not one to add
    if n % 2:
        owed = _amount(Decimal(rng.randint(100, 5000)), VENDORS[vendor], 0)
        text = (f"---\ndate: {day.isoformat()}\n---\n\n# Meeting notes: {topic}\n\nAttendees: Ana, Ben, Chloé\n\n"
                f"## Notes\n\n- Went through the {topic.lower()} items.\n"
                + (f"- The {vendor} invoice of {owed} is still open; Ben follows up.\n" if mention else "")
                + f"- Next meeting in two weeks.\n\n{' '.join('#' + t for t in sorted(tags))}\n")
    else:
        text = (f"---\ndate: {day.isoformat()}\ntags: [{', '.join(sorted(tags))}]\n---\n\n# Meeting notes: {topic}\n\n"
                f"Attendees: Ana, Ben\n\n- Went through the {topic.lower()} items.\n"
                + (f"- {vendor} asked for a new quote.\n" if mention else ""))
    slug = topic.lower().replace(" ", "-")
    return Record(f"meetings/{day.isoformat()}-{slug}-{n}.md", {"meeting"}, day, {vendor} if mention else set(),
                  tags, text=text)


def _mail(rng: random.Random, n: int) -> Record:
    day, vendor, subject = _day(rng), rng.choice(sorted(VENDORS)), rng.choice(MAIL_SUBJECTS)
    money = _amount(Decimal(rng.randint(200, 9000)), VENDORS[vendor], 0)
    body = (f"Hi,\n\n{vendor} here about: {subject.lower()}.\n"
            + (f"The new order would come to {money} before tax.\n" if n % 2 else "Nothing to pay for this one.\n")
            + "\nBest,\nThe team\n")
    text = _eml(f"team@{vendor.lower()}.example", subject, day, body)
    return Record(f"mail/mail-{n:03d}-{subject.lower().replace(':', '').replace(' ', '-')}.eml", {"mail"}, day,
                  {vendor}, text=text)


def _report(rng: random.Random, n: int) -> Record:
    day = _day(rng)
    vendors = rng.sample(sorted(VENDORS), 2)
    text = (f"Quarterly report {n}\n\nWritten {day.isoformat()}.\n\nSpend with {vendors[0]} and {vendors[1]} "
            f"grew; the largest order was {_amount(Decimal(rng.randint(1000, 20000)), 'EUR', 0)}.\n")
    return Record(f"reports/report-{n:02d}.txt", {"report"}, day, set(vendors), text=text)


def make_records(seed: int = 48, invoices: int = 110, meetings: int = 55, mails: int = 40, reports: int = 10
                 ) -> list[Record]:
    """The library's documents, the same for the same arguments."""
    rng = random.Random(seed)
    return ([_invoice(rng, i) for i in range(invoices)] + [_meeting(rng, i) for i in range(meetings)]
            + [_mail(rng, i) for i in range(mails)] + [_report(rng, i) for i in range(reports)])


def write_library(folder: Path, records: list[Record]) -> None:
    """Write every record under `folder`, each file's modified time at noon of its date."""
    for r in records:
        path = folder / r.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(r.text, encoding="utf-8")
        stamp = dt.datetime(r.date.year, r.date.month, r.date.day, 12, tzinfo=dt.UTC).timestamp()
        os.utime(path, (stamp, stamp))


# ---- questions and their answers, from the records -------------------------------------------------------------


def _month(day: dt.date) -> str:
    return day.strftime("%B %Y")


def _ask(text: str, operation: str, found: list[Record]) -> Question:
    sums: dict[str, Decimal] = {}
    if operation == "total":
        for r in found:
            if r.amount is not None:
                sums[r.currency] = sums.get(r.currency, Decimal("0")) + r.amount
    return Question(text, operation, tuple(sorted(r.path for r in found)), sums)


def _within(r: Record, start: dt.date | None, end: dt.date | None) -> bool:
    return (start is None or r.date >= start) and (end is None or r.date < end)


def _next_month(day: dt.date) -> dt.date:
    return dt.date(day.year + day.month // 12, day.month % 12 + 1, 1)


def make_questions(records: list[Record], today: dt.date, seed: int = 4848) -> list[Question]:
    """Whole-library questions with their answers: counts, lists and totals of invoices, meetings and mails, by
    vendor, tag and period (`today` for "this year")."""
    rng = random.Random(seed)
    inv = [r for r in records if "invoice" in r.kinds]
    meet = [r for r in records if "meeting" in r.kinds]
    mail = [r for r in records if "mail" in r.kinds]
    vendors = sorted(VENDORS)

    def of(rs: list[Record], vendor: str, start: dt.date | None = None, end: dt.date | None = None) -> list[Record]:
        return [r for r in rs if vendor in r.mentions and _within(r, start, end)]

    def month_of(vendor: str) -> dt.date:
        return rng.choice(of(inv, vendor)).date.replace(day=1)

    qs = [_ask(f"How many invoices did we get from {v}?", "count", of(inv, v)) for v in vendors]
    for v in rng.sample(vendors, 5):
        m = month_of(v)
        qs.append(_ask(f"How many invoices did we get from {v} in {_month(m)}?", "count",
                       of(inv, v, m, _next_month(m))))
    for y in (2025, 2026):
        qs.append(_ask(f"How many invoices are dated in {y}?", "count",
                       [r for r in inv if r.date.year == y]))
    qs += [_ask(f"What is the total of the invoices from {v}?", "total", of(inv, v)) for v in vendors]
    for v in rng.sample(vendors, 4):
        y = rng.choice((2025, 2026))
        qs.append(_ask(f"What is the total of all invoices from {v} in {y}?", "total",
                       of(inv, v, dt.date(y, 1, 1), dt.date(y + 1, 1, 1))))
    for v in rng.sample(vendors, 3):
        qs.append(_ask(f"How much did we pay {v} in Q1 2026?", "total",
                       of(inv, v, dt.date(2026, 1, 1), dt.date(2026, 4, 1))))
    for v in rng.sample(vendors, 4):
        m = month_of(v)
        qs.append(_ask(f"List the invoices from {v} in {_month(m)}.", "list", of(inv, v, m, _next_month(m))))
    for t in rng.sample(TAGS, 3):
        qs.append(_ask(f"List the meetings tagged #{t} this year.", "list",
                       [r for r in meet if t in r.tags and r.date.year == today.year]))
    for t in rng.sample(TAGS, 3):
        qs.append(_ask(f"How many meetings tagged {t} were there in 2025?", "count",
                       [r for r in meet if t in r.tags and r.date.year == 2025]))
    for v in rng.sample(vendors, 3):
        m = month_of(v)
        qs.append(_ask(f"List every mail from {v} since {_month(m)}.", "list", of(mail, v, m)))
    for v in rng.sample(vendors, 3):
        qs.append(_ask(f"How many e-mails mention {v}?", "count", of(mail, v)))
    for m in (dt.date(2025, 6, 1), dt.date(2026, 3, 1)):
        qs.append(_ask(f"What is the total of the invoices in {_month(m)}?", "total",
                       [r for r in inv if _within(r, m, _next_month(m))]))
    for v in rng.sample(vendors, 2):
        qs.append(_ask(f"Which invoices from {v} are dated before March 2025?", "list",
                       of(inv, v, None, dt.date(2025, 3, 1))))
    return qs


def make_paraphrases(records: list[Record], today: dt.date) -> list[Question]:
    """Questions worded unlike make_questions' templates, written after the rule was (bench/collection.py reports
    them apart): other verbs, word orders, `bills`, `last year`, `Q3`, `add up`."""
    inv = [r for r in records if "invoice" in r.kinds]
    meet = [r for r in records if "meeting" in r.kinds]
    mail = [r for r in records if "mail" in r.kinds]

    def of(rs: list[Record], vendor: str, start: dt.date | None = None, end: dt.date | None = None) -> list[Record]:
        return [r for r in rs if vendor in r.mentions and _within(r, start, end)]

    y25, y26, y27 = dt.date(2025, 1, 1), dt.date(2026, 1, 1), dt.date(2027, 1, 1)
    last = dt.date(today.year - 1, 1, 1), dt.date(today.year, 1, 1)
    return [
        _ask("Count the Acme invoices from 2025.", "count", of(inv, "Acme", y25, y26)),
        _ask("Give me all invoices Northwind sent in 2026.", "list", of(inv, "Northwind", y26, y27)),
        _ask("Sum the invoices from Globex.", "total", of(inv, "Globex")),
        _ask("Number of meetings tagged #hiring since June 2026?", "count",
             [r for r in meet if "hiring" in r.tags and r.date >= dt.date(2026, 6, 1)]),
        _ask("Show all e-mails from Umbrella in Q3 2026.", "list", of(mail, "Umbrella", dt.date(2026, 7, 1),
                                                                      dt.date(2026, 10, 1))),
        _ask("How many bills did Contoso send us last year?", "count", of(inv, "Contoso", *last)),
        _ask("Which e-mails did we receive from Initech?", "list", of(mail, "Initech")),
        _ask("Add up what we paid Umbrella in 2025.", "total", of(inv, "Umbrella", y25, y26)),
        _ask("What's the sum of Initech's invoices in 2026?", "total", of(inv, "Initech", y26, y27)),
        _ask("list meeting notes tagged ops from last month", "list",
             [r for r in meet if "ops" in r.tags and _within(r, *_last_month(today))]),
    ]


def _last_month(today: dt.date) -> tuple[dt.date, dt.date]:
    end = today.replace(day=1)
    return (end - dt.timedelta(days=1)).replace(day=1), end
