//! The three flow rotations of a tin (sch_cake `new_flows`, `old_flows`, `decaying_flows`,
//! Linux `list_head`s threaded through `struct cake_flow`'s `flowchain`): intrusive doubly
//! linked lists over the flow indices, so that moving a flow allocates nothing and a flow can
//! leave from the middle of a list (`list_move_tail`, `list_del_init`).

pub const NEW: usize = 0;
pub const OLD: usize = 1;
pub const DECAYING: usize = 2;
const NIL: u16 = u16::MAX;
const NONE: u8 = u8::MAX;

pub struct Lists {
    next: Vec<u16>,
    prev: Vec<u16>,
    on: Vec<u8>,
    head: [u16; 3],
    tail: [u16; 3],
}

impl Lists {
    pub fn new(n: usize) -> Self {
        Self {
            next: vec![NIL; n],
            prev: vec![NIL; n],
            on: vec![NONE; n],
            head: [NIL; 3],
            tail: [NIL; 3],
        }
    }
    pub fn is_empty(&self, l: usize) -> bool {
        self.head[l] == NIL
    }
    pub fn front(&self, l: usize) -> Option<usize> {
        (self.head[l] != NIL).then_some(self.head[l] as usize)
    }
    /// `list_add_tail`.
    pub fn push_back(&mut self, l: usize, i: usize) {
        debug_assert_eq!(self.on[i], NONE);
        self.on[i] = l as u8;
        self.next[i] = NIL;
        self.prev[i] = self.tail[l];
        match self.tail[l] {
            NIL => self.head[l] = i as u16,
            t => self.next[t as usize] = i as u16,
        }
        self.tail[l] = i as u16;
    }
    /// `list_del_init`.
    pub fn remove(&mut self, i: usize) {
        let l = self.on[i];
        if l == NONE {
            return;
        }
        let l = l as usize;
        let (p, n) = (self.prev[i], self.next[i]);
        match p {
            NIL => self.head[l] = n,
            p => self.next[p as usize] = n,
        }
        match n {
            NIL => self.tail[l] = p,
            n => self.prev[n as usize] = p,
        }
        self.on[i] = NONE;
        self.next[i] = NIL;
        self.prev[i] = NIL;
    }
    /// `list_move_tail`.
    pub fn move_tail(&mut self, i: usize, l: usize) {
        self.remove(i);
        self.push_back(l, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_move_between_lists_in_order() {
        let mut l = Lists::new(8);
        l.push_back(NEW, 3);
        l.push_back(NEW, 5);
        l.push_back(OLD, 1);
        assert_eq!(l.front(NEW), Some(3));
        l.move_tail(3, OLD);
        assert_eq!(l.front(NEW), Some(5));
        assert_eq!(l.front(OLD), Some(1));
        l.move_tail(1, OLD);
        assert_eq!(l.front(OLD), Some(3));
        l.remove(5);
        assert!(l.is_empty(NEW));
        l.move_tail(1, DECAYING);
        l.remove(3);
        assert!(l.is_empty(OLD));
        assert_eq!(l.front(DECAYING), Some(1));
    }
}
