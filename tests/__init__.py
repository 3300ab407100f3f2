"""peirce's tests: ``tests.helpers`` holds what several test modules share."""
