import threading

from gillab.kernel.shell import thread_displays


def test_a_display_from_another_thread_goes_to_the_native_publisher_and_the_shells_own_stays(shell):
    published, on_the_shell_thread = [], []
    shell.display_pub.publish_display_data = lambda data, *rest: on_the_shell_thread.append(data)
    thread_displays.install(shell, lambda msg_type, content: published.append((msg_type, content)))
    from IPython.display import display
    thread = threading.Thread(target=display, args=({"text/plain": "from a thread"},), kwargs={"raw": True})
    thread.start()
    thread.join()
    assert published == [("display_data", {"data": {"text/plain": "from a thread"}, "metadata": {}, "transient": {}})]
    display({"text/plain": "from the shell"}, raw=True)
    assert len(published) == 1
    assert on_the_shell_thread == [{"text/plain": "from the shell"}]


def test_an_update_from_a_thread_is_an_update_display_data(shell):
    published = []
    shell.display_pub.publish_display_data = lambda *args: None
    thread_displays.install(shell, lambda msg_type, content: published.append(msg_type))
    from IPython.display import update_display
    thread = threading.Thread(target=update_display, args=({"text/plain": "x"},),
                              kwargs={"raw": True, "display_id": "d"})
    thread.start()
    thread.join()
    assert published == ["update_display_data"]
