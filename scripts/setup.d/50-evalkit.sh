# evalkit itself, editable, with every extra and the test tools (seconds when already there),
# and the example third-party verifier (its entry point registers "reverse"; CI runs its tests).
step "evalkit (editable, all extras) and examples/minimal_verifier"
pip_install -e ".[all,test]"
pip_install --no-deps -e examples/minimal_verifier
