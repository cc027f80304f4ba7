"""What initlint knows of ``torch.nn.Module`` without torch's sources (torch not installed):
the public names an instance has right after ``nn.Module.__init__`` (its methods, class
attributes and ``training``), from torch 2.13; and what the standard library's plain bases
bind. Used to decide ``hasattr(self, "x")``."""

from __future__ import annotations

MODULE_CLASSES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})

MODULE_NAMES = frozenset(
    """
    T_destination add_module apply bfloat16 buffers call_super_init children compile cpu cuda
    double dump_patches eval extra_repr float forward get_buffer get_extra_state get_parameter
    get_submodule half ipu load_state_dict modules mtia named_buffers named_children
    named_modules named_parameters parameters register_backward_hook register_buffer
    register_forward_hook register_forward_pre_hook register_full_backward_hook
    register_full_backward_pre_hook register_load_state_dict_post_hook
    register_load_state_dict_pre_hook register_module register_parameter
    register_state_dict_post_hook register_state_dict_pre_hook requires_grad_ set_extra_state
    set_submodule share_memory state_dict to to_empty train training type xpu zero_grad
    """.split()
)


# The standard library's bases a class of a model commonly names, with what they bind that an
# instance can read (``ABCMeta`` gives each class ``_abc_impl``; ``Generic`` its parameters):
# nothing else of ``self`` comes from them.
PLAIN_BASES = {
    "abc.ABC": frozenset({"_abc_impl", "__slots__"}),
    "typing.Generic": frozenset(
        {
            "__parameters__",
            "__orig_bases__",
            "__class_getitem__",
            "__init_subclass__",
            "_is_protocol",
        }
    ),
    "object": frozenset(),
    "builtins.object": frozenset(),
}
