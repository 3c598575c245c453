# evalkit itself, editable, with every extra and the test tools (seconds when already there).
step "evalkit (editable, all extras)"
pip_install -e ".[all,test]"
