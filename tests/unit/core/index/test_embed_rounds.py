"""Embedding rounds are sized by time, so a kill loses seconds of work."""

from desktop_app.core.index.embed_worker import MIN_ROUND, next_round_size


def test_embedding_rounds_aim_at_their_target_duration():
    assert next_round_size(16, 1.0, 3.0, 256) == 48  # three times as many at the same rate
    assert next_round_size(256, 30.0, 3.0, 256) == 25  # a slow round shrinks the next one
    assert next_round_size(16, 100.0, 3.0, 256) == MIN_ROUND  # never below the floor
    assert next_round_size(16, 0.01, 3.0, 256) == 256  # never above the largest
    assert next_round_size(16, 0.0, 3.0, 8) == 8
