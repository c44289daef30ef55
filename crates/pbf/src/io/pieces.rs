//! A frame in pieces, one per process, in ParaView's parallel convention: each process writes
//! its particles as `frame_<k>_p<rank>.vtu`, and `frame_<k>.pvtu` names the pieces and their
//! arrays (the `.pvd` series then lists the `.pvtu` files).
//!
//! Owns: the pieces' and the `.pvtu`'s names and the `.pvtu` text. Does not touch: the pieces'
//! contents (an ordinary [`Frame`], written by `frame`) or when they are written.

use super::frame::{ArrayData, Frame};

/// File name of process `rank`'s piece of frame `index`.
pub fn piece_name(index: usize, rank: usize) -> String {
    format!("frame_{index:05}_p{rank}.vtu")
}

/// File name of frame `index`'s parallel file.
pub fn pvtu_name(index: usize) -> String {
    format!("frame_{index:05}.pvtu")
}

/// The `.pvtu` of frame `index` in `ranks` pieces whose arrays are those of `like` (any piece:
/// they all carry the same arrays).
pub fn pvtu_text(like: &Frame, index: usize, ranks: usize) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" \
         byte_order=\"BigEndian\" header_type=\"UInt64\">\n<PUnstructuredGrid GhostLevel=\"0\">\n",
    );
    s.push_str(&format!("<PPointData{}>\n", like.active_arrays()));
    for a in &like.arrays {
        let (ty, comps) = match a.data {
            ArrayData::U32(_) => ("UInt32", 1),
            ArrayData::F32(_) => ("Float32", 1),
            ArrayData::Vec3(_) => ("Float32", 3),
        };
        s.push_str(&format!(
            "  <PDataArray type=\"{ty}\" Name=\"{}\" NumberOfComponents=\"{comps}\"/>\n",
            a.name
        ));
    }
    s.push_str(
        "</PPointData>\n<PPoints>\n  <PDataArray type=\"Float32\" Name=\"Points\" \
         NumberOfComponents=\"3\"/>\n</PPoints>\n<PCells>\n  \
         <PDataArray type=\"UInt64\" Name=\"connectivity\"/>\n  \
         <PDataArray type=\"UInt64\" Name=\"offsets\"/>\n  \
         <PDataArray type=\"UInt8\" Name=\"types\"/>\n</PCells>\n",
    );
    for r in 0..ranks {
        s.push_str(&format!("<Piece Source=\"{}\"/>\n", piece_name(index, r)));
    }
    s.push_str("</PUnstructuredGrid>\n</VTKFile>\n");
    s
}
