//! Typed indices into the simulation's arenas. A `u32` each, so that packets stay small
//! and a node id can never be passed where a link id is expected.

macro_rules! id_type {
    ($name:ident, $doc:expr) => {
        #[doc = $doc]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(NodeId, "A node (host or router).");
id_type!(
    PortId,
    "One direction of a link: the output port of its `from` node, with its queue."
);
id_type!(
    LinkId,
    "A duplex link as named in the scenario (two ports)."
);
id_type!(
    FlowId,
    "A flow as expanded from the scenario's `[[flows]]`."
);
id_type!(
    AgentId,
    "A transport endpoint (sender or receiver side of a flow)."
);
