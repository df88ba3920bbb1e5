from buraco.cards import CARD_KINDS, CARDS, JOKER, Card, deck_counts, format_cards, parse_cards


def test_it_reads_every_spelling_of_a_card() -> None:
    assert Card.parse("Th") is Card.parse("10h") is Card.parse("th") is Card.parse("TH")
    assert Card.parse("jk") is JOKER


def test_it_has_a_pasteable_repr() -> None:
    assert repr(Card.parse("Th")) == "Card.parse('Th')"
    assert eval(repr(Card.parse("As"))) is Card.parse("As")


def test_it_knows_rank_and_suit() -> None:
    card = Card.parse("Qd")
    assert (card.rank, card.suit) == (12, 1)
    assert JOKER.rank == 0 and JOKER.is_joker and JOKER.is_wild_kind
    assert Card.parse("2c").is_wild_kind and not Card.parse("3c").is_wild_kind


def test_it_refuses_text_that_is_not_a_card() -> None:
    for text in ("1h", "Xh", "T", "10", "hh", "JKK", ""):
        try:
            Card.parse(text)
        except ValueError as error:
            assert "not a card" in str(error)
        else:
            raise AssertionError(f"{text!r} was read as a card")


def test_it_round_trips_card_lists() -> None:
    text = "Ah 2c Td JK Ks"
    assert format_cards(parse_cards(text)) == text


def test_it_counts_two_decks_and_the_jokers() -> None:
    assert sum(deck_counts(0)) == 104
    assert sum(deck_counts(2)) == 106
    assert sum(deck_counts(4)) == 108
    assert len(CARDS) == CARD_KINDS == 53
