# evalkit itself, editable, with every extra and the test tools (seconds when already there),
# and the example third-party verifier (its entry point registers "reverse"; CI runs its tests).
step "evalkit (editable, all extras) and examples/minimal_verifier (a few minutes the first time, seconds after)"
editable_install ".[all,test]"
editable_install examples/minimal_verifier --no-deps
# Peer Dou Dizhu engines whose legal-move generators the `rlcard` and `douzero` presets are tested
# against (tests/doudizhu/test_doudizhu_peers.py): only their rules code is used, so no torch pins.
if ! "$PY" -c 'import rlcard.games.doudizhu.judger, douzero.env.game' 2>/dev/null; then
  step "Dou Dizhu peers for the rule-preset tests (rlcard 1.2.0, douzero 1.1.0; seconds)"
  pypi_install --no-deps "rlcard==1.2.0" "douzero==1.1.0" "termcolor"
fi
