#!/usr/bin/env perl
# docs.layers (CTest): the include graph against the layer order of docs/architecture.md §1.
# The table there maps every file of lib/ to a module and every module to a layer; a file may
# include the headers of its own module and of modules in lower layers only, so the modules form
# no cycle. The suite's folders (study/, cases/, cli/) have a table of their own in §2: each
# module lists the modules it may include, so that the engine includes nothing of the cases, a
# case reaches the engine through results.h and runs.h only, and analysis/ includes none of them.
# Usage: check_layers.pl SOURCE_DIR
use strict;
use warnings;

my $root = shift @ARGV or die "usage: check_layers.pl SOURCE_DIR\n";
chdir $root or die "check_layers: cannot enter $root: $!\n";

# the table: | layer | module | files (space-separated basenames without extension) |
open my $doc, '<', 'docs/architecture.md' or die "check_layers: docs/architecture.md: $!\n";
my (%layer, %module_of);
my $in = 0;
while (<$doc>) {
    $in = 1 if /^<!-- layers: begin -->/;
    $in = 0 if /^<!-- layers: end -->/;
    next unless $in && /^\|\s*(\d+)\s*\|\s*`?([a-z]+)`?\s*\|\s*([^|]+)\|/;
    my ($l, $m, $files) = ($1, $2, $3);
    $layer{$m} = $l;
    for my $f (split /[\s,]+/, $files) {
        $f =~ s/`//g;
        next if $f eq '';
        die "check_layers: '$f' is in two modules ($module_of{$f}, $m)\n" if exists $module_of{$f};
        $module_of{$f} = $m;
    }
}
close $doc;
die "check_layers: no layer table in docs/architecture.md\n" unless %layer;

my @problems;
my $edges = 0;
my @files = (glob('lib/src/*.[ch]'), glob('lib/include/ccb/*.h'));
for my $path (@files) {
    (my $base = $path) =~ s{.*/}{};
    (my $stem = $base) =~ s/\.[ch]$//;
    my $m = $module_of{$stem};
    unless (defined $m) {
        push @problems, "$path: its file '$stem' is in no module of the table";
        next;
    }
    open my $fh, '<', $path or die "check_layers: $path: $!\n";
    while (my $line = <$fh>) {
        next unless $line =~ /^\s*#\s*include\s+"([^"]+)"/;
        my $header = $1;
        (my $inc = $header) =~ s{.*/}{};
        $inc =~ s/\.h$//;
        my $im = $module_of{$inc};
        unless (defined $im) {
            push @problems, "$path:$.: includes '$header', which is in no module of the table";
            next;
        }
        ++$edges;
        next if $im eq $m;
        push @problems, "$path:$.: module $m (layer $layer{$m}) includes $header of module $im "
                      . "(layer $layer{$im}): a layer may include only lower ones"
            unless $layer{$im} < $layer{$m};
    }
    close $fh;
}

# The suite's folders (docs/architecture.md §2, the table between the suite-layers markers): every
# file of study/, cases/ and cli/ (not their tests/) belongs to the module of its most specific
# pattern ("study/case" before "study/*"), and each of its includes that names a header of those
# folders must be of its own module or of one its row lists. A header found in none of them
# (analysis/, reference/, lib/) is below them all; analysis/ includes none of the suite's.
open $doc, '<', 'docs/architecture.md' or die "check_layers: docs/architecture.md: $!\n";
my (%suite_may, @suite_patterns);
$in = 0;
while (<$doc>) {
    $in = 1 if /^<!-- suite-layers: begin -->/;
    $in = 0 if /^<!-- suite-layers: end -->/;
    next unless $in && /^\|\s*`([a-z]+)`\s*\|\s*([^|]+)\|\s*([^|]*)\|/;
    my ($m, $files, $may) = ($1, $2, $3);
    $suite_may{$m} = { map { $_ => 1 } grep { $_ ne '' } split /\s+/, $may };
    push @suite_patterns, [$_, $m] for grep { $_ ne '' } split /\s+/, $files;
}
close $doc;
die "check_layers: no suite-layers table in docs/architecture.md\n" unless %suite_may;
for my $m (keys %suite_may) {
    for my $u (keys %{ $suite_may{$m} }) {
        die "check_layers: module $m may include '$u', which is no module of the table\n"
            unless exists $suite_may{$u};
    }
}
# the module of a path (without extension): an exact entry, else its folder's "DIR/*"
sub suite_module {
    my ($stem) = @_;
    for my $p (@suite_patterns) { return $p->[1] if $p->[0] eq $stem; }
    (my $dir = $stem) =~ s{/[^/]*$}{/*};
    for my $p (@suite_patterns) { return $p->[1] if $p->[0] eq $dir; }
    return undef;
}
my $suite_edges = 0;
for my $path (map { glob "$_/*.[ch]" } qw(study cases cli)) {
    (my $stem = $path) =~ s/\.[ch]$//;
    my $m = suite_module($stem);
    unless (defined $m) {
        push @problems, "$path: in no module of the suite's table (docs/architecture.md §2)";
        next;
    }
    open my $fh, '<', $path or die "check_layers: $path: $!\n";
    while (my $line = <$fh>) {
        next unless $line =~ /^\s*#\s*include\s+"([^"]+)"/;
        my $header = $1;
        my ($found) = grep { -f "$_/$header" } qw(study cases cli);
        next unless defined $found;    # analysis/, reference/, lib/: below the suite
        (my $hstem = "$found/$header") =~ s/\.h$//;
        my $im = suite_module($hstem);
        ++$suite_edges;
        next if defined $im && ($im eq $m || $suite_may{$m}{$im});
        push @problems, "$path:$.: module $m includes $header of module "
                      . ($im // '(none)') . ", which its row does not list (docs/architecture.md §2)";
    }
    close $fh;
}
for my $path (glob 'analysis/*.[ch]') {
    open my $fh, '<', $path or die "check_layers: $path: $!\n";
    while (my $line = <$fh>) {
        next unless $line =~ /^\s*#\s*include\s+"([^"]+)"/;
        my $header = $1;
        push @problems, "$path:$.: includes $header of the suite (docs/architecture.md §2)"
            if grep { -f "$_/$header" } qw(study cases cli);
    }
    close $fh;
}

print "$_\n" for @problems;
printf "check_layers: %d modules and %d includes of lib/, %d modules and %d includes of the "
    . "suite checked, %d problems\n", scalar(keys %layer), $edges, scalar(keys %suite_may),
    $suite_edges, scalar @problems;
exit(@problems ? 1 : 0);
